"""The table screen: seats, grids, heaps, the log, the hint key. It opens the screens around it."""
