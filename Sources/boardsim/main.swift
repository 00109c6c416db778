print("boardsim: not yet")
