"""Paper 001: Vardi, Shamir, Srebro, on margin maximization in linear and ReLU networks."""
