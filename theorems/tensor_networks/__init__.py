"""Paper 002: Yun, Krishnan, Mobahi, a unifying view on implicit bias in training linear neural networks."""
