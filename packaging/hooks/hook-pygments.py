# Replaces PyInstaller's hook for Pygments, which adds every lexer, style and
# formatter (some 330 modules) for a program that may load any by name.
# kubectl-informer loads the few its Syntax(...) and Textual's name: the spec
# adds those (packaging/shipped.py finds them).
hiddenimports = []
