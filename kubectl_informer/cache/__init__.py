"""Port of client-go's ``tools/cache``: keys, stores and indexers, DeltaFIFO and
RealFIFO, the reflector and its pager, the shared informer.

May import ``core`` and ``clock`` only; none of click, textual, rich or kubernetes."""
