"""Array-in, array-out compiled kernels: numpy and numba only, no pandas, no validation."""
