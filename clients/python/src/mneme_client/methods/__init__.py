"""The clients' methods, one module per group of routes: each holds the group's synchronous mixin (over
:class:`mneme_client.transport.SyncBase`) and its asynchronous twin (over :class:`~mneme_client.transport.AsyncBase`),
side by side, so the two clients keep the same methods."""
