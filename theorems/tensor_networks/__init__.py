"""Paper 002: Yun, Krishnan, Mobahi, a unifying view on implicit bias in training linear neural networks."""

TITLE = "A unifying view on implicit bias in training linear neural networks"
AUTHORS = "Yun, Krishnan, Mobahi"
CITATION = "arXiv:2010.02501 (ICLR 2021)"
ORDER = 2
