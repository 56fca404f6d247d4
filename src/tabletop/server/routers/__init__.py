"""The server's routers, one per concern."""
