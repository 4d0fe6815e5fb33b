"""Print docs/explain.md's generated list of texts: python -m kubectl_informer.panes.explain"""

from kubectl_informer.panes.explain.texts import markdown

if __name__ == "__main__":
    print(markdown(), end="")
