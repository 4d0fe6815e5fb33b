"""How every command of ours behaves: help ordered as kubectl's, one error
line and kubectl's exit codes for every way a command can end (``run_guarded``),
Go durations, and what the commands share to reach a terminal."""

from __future__ import annotations

import contextlib
import gc
import logging
import os
import sys
import warnings
from collections.abc import Callable, Iterator, Sequence
from typing import TYPE_CHECKING, Any, Literal, NoReturn, TypeVar, overload

import click

from kubectl_informer.run.errors import RunError

if TYPE_CHECKING:
    from kubectl_informer.run.lifecycle import UiApp

PROG = "kubectl informer"
# A command's function, as click's option decorators take and give it back.
F = TypeVar("F", bound=Callable[..., Any])


# --- help that reads like kubectl's ---------------------------------------------


def _format_examples(formatter: click.HelpFormatter, examples: str) -> None:
    if not examples:
        return
    formatter.write_paragraph()
    formatter.write("Examples:\n")
    for line in examples.strip("\n").splitlines():
        formatter.write(("  " + line.strip()) if line.strip() else "")
        formatter.write("\n")


class KubectlCommand(click.Command):
    """A command whose help is ordered as kubectl's: what it does, Examples,
    Options, then Usage."""

    def __init__(self, *args: Any, examples: str = "", usage: str = "", **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.examples = examples
        self.usage = usage

    def format_help(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        self.format_help_text(ctx, formatter)
        _format_examples(formatter, self.examples)
        self.format_options(ctx, formatter)
        formatter.write_paragraph()
        formatter.write(f"Usage:\n  {ctx.command_path} {self.usage or '[options]'}\n")

    def format_help_text(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        if self.help:
            formatter.write(click.unstyle(self.help).strip() + "\n")


def first_sentence(text: str) -> str:
    """The help's first sentence, whole: up to the first ". " or ":"."""
    text = " ".join(click.unstyle(text).split())
    for i, ch in enumerate(text):
        if (ch == "." and text[i + 1 : i + 2] in ("", " ")) or (ch == ":" and text[i + 1 : i + 2] == " "):
            return text[:i]
    return text


class KubectlGroup(click.Group):
    """The top-level group; its ``main`` is the error guard every command runs in."""

    def __init__(self, *args: Any, examples: str = "", **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.examples = examples

    def format_help(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        if self.help:
            formatter.write(self.help.strip() + "\n")
        _format_examples(formatter, self.examples)
        self.format_options(ctx, formatter)  # click's Group lists the commands after the options
        formatter.write_paragraph()
        formatter.write(f"Usage:\n  {ctx.command_path} [command] [options]\n")
        formatter.write_paragraph()
        formatter.write(f'Use "{ctx.command_path} <command> --help" for more information about a given command.\n')

    def format_commands(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        """kubectl's "Available Commands": each with its first sentence whole
        (click's list cuts them at 45 characters with "...")."""
        rows = []
        for name in self.list_commands(ctx):
            cmd = self.get_command(ctx, name)
            if cmd is None or cmd.hidden:
                continue
            rows.append((name, cmd.short_help or first_sentence(cmd.help or "")))
        if rows:
            with formatter.section("Available Commands"):
                formatter.write_dl(rows)

    def invoke(self, ctx: click.Context) -> Any:
        from kubectl_informer.run.signals import Interrupted

        try:
            return super().invoke(ctx)
        except KeyboardInterrupt:
            raise Interrupted() from None

    @overload
    def main(
        self,
        args: Sequence[str] | None = None,
        prog_name: str | None = None,
        complete_var: str | None = None,
        standalone_mode: Literal[True] = True,
        **extra: Any,
    ) -> NoReturn: ...

    @overload
    def main(
        self,
        args: Sequence[str] | None = None,
        prog_name: str | None = None,
        complete_var: str | None = None,
        standalone_mode: bool = ...,
        **extra: Any,
    ) -> int: ...

    def main(
        self,
        args: Sequence[str] | None = None,
        prog_name: str | None = None,
        complete_var: str | None = None,
        standalone_mode: bool = True,
        **extra: Any,
    ) -> int:
        # Always "kubectl informer": kubectl runs us as kubectl-informer, users type the former.
        args = list(sys.argv[1:] if args is None else args)
        self.argv = args  # for the recording's header (run.info)
        code = run_guarded(
            lambda: super(KubectlGroup, self).main(
                args=args, prog_name=PROG, complete_var=complete_var, standalone_mode=False, **extra
            ),
            debug="--debug" in args or bool(os.environ.get("KUBECTL_INFORMER_DEBUG")),
            args=args,
        )
        if standalone_mode:
            # The command is done, its threads stopped and its files closed;
            # what is left is the interpreter's teardown, whose collections
            # walk every object the run made: 0.17 s of CPU after a live UI's
            # `q`, most of its exit. Frozen, they are left to the process's end
            # (objects are still freed as their last reference goes).
            gc.freeze()
            sys.exit(code)
        return code


def error_line(message: str) -> None:
    """The one line every failure ends in, kubectl's ``error: ...`` form;
    what a server said in it is shown ``printable``."""
    from kubectl_informer.core.printable import printable
    from kubectl_informer.core.redact import redact

    text = printable(redact(" ".join(str(message).split())))
    try:
        sys.stderr.write(f"error: {text}\n")
        sys.stderr.flush()
    except (BrokenPipeError, ValueError):
        pass


def _usage_message(e: click.ClickException) -> str:
    msg = e.format_message().strip()
    if msg[:1].isupper() and not msg[1:2].isupper():
        msg = msg[0].lower() + msg[1:]
    msg = msg.rstrip(".")
    ctx = getattr(e, "ctx", None)
    if isinstance(e, click.UsageError) and ctx is not None:
        msg += f" (see '{ctx.command_path} --help')"
    return msg


def _silence_stdout() -> None:
    # After EPIPE, Python would fail again flushing stdout at exit.
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    except (OSError, ValueError, AttributeError):
        pass


def run_guarded(fn: Callable[[], object], debug: bool = False, args: list[str] | None = None) -> int:
    """Run ``fn``; map every way it can end to an exit code and at most one
    line. A signal wins over everything else: 128 + its number, and no line
    about what its interruption broke (kubectl's Go runtime says nothing)."""
    from kubectl_informer.run import signals

    if not debug:
        # Library warnings (urllib3's retries) would reach stderr through logging's
        # last-resort handler and break the one-line rule.
        logging.getLogger().addHandler(logging.NullHandler())
    # urllib3 warns on every request to a server whose certificate is not
    # verified; kubectl says nothing there, the header says it once (tls_verify).
    warnings.filterwarnings("ignore", message="Unverified HTTPS request")
    from kubectl_informer.run import crash

    restore, unwatch = signals.install(), crash.watch_threads()
    try:
        code = _run_guarded(fn, debug, args or [])
        died = crash.pending()
        if died is not None:  # a thread died: its SIGTERM was ours
            if debug:
                crash.print_crash(died, args)
            error_line(crash.crash_line(died, args))
            return 1
        return signals.exit_code(code)
    finally:
        unwatch()
        restore()


def _say(message: str) -> None:
    from kubectl_informer.run import signals

    if signals.received() is None:
        error_line(message)


def _run_guarded(fn: Callable[[], object], debug: bool, args: list[str]) -> int:
    from kubectl_informer.cli.output import OutputError
    from kubectl_informer.run.signals import Interrupted, Terminated

    try:
        rv = fn()
        return rv if isinstance(rv, int) else 0
    except click.exceptions.Exit as e:
        return e.exit_code
    except click.exceptions.Abort:
        return 130
    except click.ClickException as e:
        _say(_usage_message(e))
        return e.exit_code
    except OutputError as e:  # stdout full or gone bad: what is still buffered for it can go nowhere
        _silence_stdout()
        _say(str(e))
        return 1
    except RunError as e:
        _say(str(e))
        return 1
    except (KeyboardInterrupt, Interrupted):
        return 130
    except Terminated:
        return 143
    except BrokenPipeError:
        # The reader went away (`| head`): a normal end for a stream.
        _silence_stdout()
        return 0
    except Exception as e:  # noqa: BLE001  the last guard: one line naming the crash log
        return _crashed(e, debug, args)


def _crashed(e: Exception, debug: bool, args: list[str]) -> int:
    from kubectl_informer.run.crash import crash_line, print_crash
    from kubectl_informer.run.runner import describe_error

    known = describe_error(e)
    if known:
        _say(known)
        return 1
    if debug:
        print_crash(e, args)
    _say(crash_line(e, args))
    return 1


# --- parameter types -----------------------------------------------------------------


class Duration(click.ParamType):
    """Go duration syntax, as every client-go flag takes: 3s, 500ms, 1m30s."""

    name = "DURATION"

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> float:
        if isinstance(value, (int, float)):
            return float(value)
        from kubectl_informer.core.durations import parse_duration

        try:
            return parse_duration(str(value))
        except ValueError as e:
            self.fail(str(e), param, ctx)


DURATION = Duration()


class RequestTimeout(Duration):
    """kubectl's ``--request-timeout``: a bare integer is seconds (``1``), else a
    Go duration (``1s``, ``2m``); 0 means no limit (clientcmd's rule)."""

    name = "TIMEOUT"

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> float:
        text = str(value).strip()
        if text.isdigit():
            return float(int(text))
        return super().convert(value, param, ctx)  # a negative one is refused there


REQUEST_TIMEOUT = RequestTimeout()


class PositiveDuration(Duration):
    """A duration to run for: 0 or less would end the run before it starts."""

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> float:
        seconds = super().convert(value, param, ctx)
        if seconds <= 0:
            self.fail(f"must be above 0, got {value}", param, ctx)
        return seconds


POSITIVE_DURATION = PositiveDuration()


def debug_option(f: F) -> F:
    # Read by the guard from argv; declared so every command accepts it.
    return click.option(
        "--debug", is_flag=True, expose_value=False, help="Print the traceback of an unexpected failure."
    )(f)


def command_line() -> tuple[str, ...]:
    """The command line as typed (for a recording's header); () outside one."""
    ctx = click.get_current_context(silent=True)
    return hide_token(tuple(getattr(ctx.find_root().command, "argv", None) or ()) if ctx is not None else ())


def hide_token(args: tuple[str, ...]) -> tuple[str, ...]:
    """``--token``'s value replaced, wherever the command line is kept or shown."""
    out = list(args)
    for i, arg in enumerate(out):
        if arg == "--token" and i + 1 < len(out):
            out[i + 1] = "<redacted>"
        elif arg.startswith("--token="):
            out[i] = "--token=<redacted>"
    return tuple(out)


def need_terminal() -> None:
    if not (sys.stdout.isatty() and sys.stdin.isatty()):
        raise RunError("the live UI needs a terminal: use -o json or -o text to run without one")


def run_app(app: UiApp) -> None:
    """Run a UI with the UI's process setting; SIGTERM closes it like `q`."""
    from kubectl_informer.run.lifecycle import UI, serve_app, tuned

    with tuned(UI):
        serve_app(app)


@contextlib.contextmanager
def quiet_on_closed_pipe() -> Iterator[None]:
    """The reader went away (`| head`): a normal end for a stream, exit 0.
    Handled here because click turns EPIPE into exit 1 before our guard sees it."""
    try:
        yield
    except BrokenPipeError:
        _silence_stdout()
