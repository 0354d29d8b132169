"""Paper 003: Ji, Telgarsky, gradient descent aligns the layers of deep linear networks."""
