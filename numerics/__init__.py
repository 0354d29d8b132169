"""Paper-agnostic numerical engines: networks, losses, flows, convex references, certificates."""
