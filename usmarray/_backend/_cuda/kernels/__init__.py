"""usmarray's own CUDA kernels, one family per module: the source is data (generated
per operation and dtype), compiled once through NVRTC, and launched through the
driver with packed arguments (:mod:`._launch`)."""
