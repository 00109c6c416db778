print("boardbridge: not yet")
