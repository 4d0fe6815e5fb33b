"""``python -m kubectl_informer``: the same command as ``kubectl-informer``."""

from .cli import main

if __name__ == "__main__":
    main()
