"""mneme: a serverless agent runtime — context assembly, k-NN memory, delegation and audit.

The package is pure at import time: no I/O, no environment reads, no clients. Adapters and the
composition root create clients when they are asked to.
"""

__all__ = ["__version__"]

__version__ = "0.1.0"
