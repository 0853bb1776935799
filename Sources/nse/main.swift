print("nse")
