print("player bench")
