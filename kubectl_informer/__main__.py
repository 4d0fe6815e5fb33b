"""``python -m kubectl_informer``: the same command as ``kubectl-informer``."""

from kubectl_informer.cli.main import main

if __name__ == "__main__":
    main()
