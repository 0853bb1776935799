// Loopback HTTP server.
