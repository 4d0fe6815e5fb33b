"""A signal handler can run inside another one on the main thread: noting
the second signal must not wait on the first one's lock."""

import threading

from kubectl_informer.run import signals


def test_a_signal_noted_while_another_is_being_noted_does_not_block():
    signals.install()()  # forget earlier signals; put the handlers back at once
    done = threading.Event()

    def handler_inside_handler() -> None:
        # As the main thread would be when SIGTERM's handler runs within
        # SIGINT's `note`: the lock is held by this very thread.
        with signals._lock:
            signals.note(2)
            signals.note(15)
        done.set()

    t = threading.Thread(target=handler_inside_handler, daemon=True)
    t.start()
    assert done.wait(5), "noting a second signal inside the first one's note blocked"
    assert signals.received() == 2
    assert signals.exit_code(1) == 130
