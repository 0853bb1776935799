"""Makes aioapns's proxy_host/proxy_port work on Python 3.11 and later (docs/serve.md, "aioapns through the proxy").

aioapns 4.0 opens its TLS connection over the proxy's tunnel by handing asyncio the tunnel transport's socket
(`transport.get_extra_info("socket")`, in `HttpProxyProtocol.create_apns_connection`). That is an
asyncio.TransportSocket, a read-only view that lost its send and recv methods in Python 3.11, so the new TLS
transport fails its first write ("'TransportSocket' object has no attribute 'send'") in a task nobody awaits, and
the send waits for ever. This starts TLS on the tunnel transport itself with asyncio's own `loop.start_tls`.
Import it once, before the first send.
"""
from aioapns import connection


async def _start_tls_on_the_tunnel(self):
    protocol = self.apns_protocol_factory()
    tls = await self.loop.start_tls(self.transport, protocol, self.ssl_context, server_hostname=self.apns_host)
    protocol.connection_made(tls)
    self.apns_protocol = protocol
    self.apns_connection_ready.set()


connection.HttpProxyProtocol.create_apns_connection = _start_tls_on_the_tunnel
