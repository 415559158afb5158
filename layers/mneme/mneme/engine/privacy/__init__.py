"""The privacy operations: exports, erasures, and the privacy worker that continues them."""
