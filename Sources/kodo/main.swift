print("kodo")
