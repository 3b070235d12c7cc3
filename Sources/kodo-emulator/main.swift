print("kodo-emulator")
