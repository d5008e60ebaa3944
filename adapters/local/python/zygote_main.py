
if CFG["mode"] == "server":
    server()
else:
    once()
