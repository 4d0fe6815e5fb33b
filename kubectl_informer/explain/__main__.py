"""Print docs/explain.md's generated list of texts: python -m kubectl_informer.explain"""

from .texts import markdown

if __name__ == "__main__":
    print(markdown(), end="")
