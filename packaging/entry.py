"""Entry point of the self-contained kubectl-informer (frozen by PyInstaller).

Run as ``kubectl_complete-informer`` (a link to it, or the Windows archive's
second executable) or with ``__complete`` as first argument (the POSIX
archive's completer script) it answers kubectl's shell completion; otherwise
it is the plugin.
"""

import os
import sys


def main() -> int:
    name = os.path.basename(sys.argv[0]).lower()
    if name.endswith(".exe"):
        name = name[:-4]
    if name.startswith("kubectl_complete-") or sys.argv[1:2] == ["__complete"]:
        from kubectl_informer.cli.completion import main as complete

        return complete()
    from kubectl_informer.cli.main import main as plugin

    return plugin()


if __name__ == "__main__":
    sys.exit(main())
