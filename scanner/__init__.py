"""Image -> puzzle reading, overlay drawing and the command line. Uses ``solver``."""
