print("lector")
