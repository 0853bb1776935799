import NSEServer
