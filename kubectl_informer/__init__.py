"""kubectl informer: client-go's informer machinery, made visible."""

__version__ = "0.1.0"
