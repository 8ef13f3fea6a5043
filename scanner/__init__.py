"""Image -> puzzle reading, overlay drawing and the command line. Uses ``solver``."""
import os

# The digit classifier multiplies small matrices: BLAS threads only cost time there (10-30x slower on a
# busy 2-core machine), and batch runs parallelise across worker processes instead.
for _var in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_var, "1")
