"""Batch runs: folders, multi-page PDFs and TIFFs, several puzzles per page, pages in parallel, a report.

``run.run_batch`` drives it; ``units`` lists the pages, ``raster`` makes a page's pixels, ``worker`` reads
one page in a worker process, ``pool`` runs them (surviving dead workers), ``resume``, ``progress`` and
``summary`` do what they say; ``bench`` is the throughput and fault benchmark. Nothing heavy is imported
here: the text-puzzle path of the CLI never loads OpenCV, pypdfium2 or tqdm.
"""
