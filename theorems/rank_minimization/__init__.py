"""Paper 000: Timor, Vardi, Shamir, implicit regularization towards rank minimization in ReLU networks."""
