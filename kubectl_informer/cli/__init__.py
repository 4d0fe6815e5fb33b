"""The command line: click commands, their parameters, completion and headless output.

The top layer: may import every other.
"""
