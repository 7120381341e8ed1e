"""Protocol v1: strict JSON on the wire, the reference's server, and the client that speaks to an implementation."""
