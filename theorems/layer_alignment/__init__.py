"""Paper 003: Ji, Telgarsky, gradient descent aligns the layers of deep linear networks."""

TITLE = "Gradient descent aligns the layers of deep linear networks"
AUTHORS = "Ji, Telgarsky"
CITATION = "arXiv:1810.02032 (ICLR 2019)"
ORDER = 3
