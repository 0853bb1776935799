"""The flow-control window `nse serve` grants an HTTP/2 client before it sends anything, read with the h2 library
(python-hyper) over h2c, for NSEServerTests (HTTP2ClientTests).

Usage: h2_window.py PORT
  Sends the client preface, reads the server's first frames until its SETTINGS are acknowledged and a second has
  passed with nothing more, and prints {"connection_window": n, "max_concurrent_streams": n}.
"""
import json
import socket
import sys

import h2.config
import h2.connection


def main():
    port = int(sys.argv[1])
    connection = h2.connection.H2Connection(h2.config.H2Configuration(client_side=True))
    with socket.create_connection(("127.0.0.1", port)) as sock:
        connection.initiate_connection()
        sock.sendall(connection.data_to_send())
        sock.settimeout(1.0)
        try:
            while True:
                data = sock.recv(65536)
                if not data:
                    break
                connection.receive_data(data)
                sock.sendall(connection.data_to_send())
        except socket.timeout:
            pass
    print(json.dumps({
        "connection_window": connection.outbound_flow_control_window,
        "max_concurrent_streams": connection.remote_settings.max_concurrent_streams,
    }))


main()
