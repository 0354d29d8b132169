"""Soudry, Hoffer, Nacson, Gunasekar, Srebro: The implicit bias of gradient descent on separable data."""

TITLE = "The implicit bias of gradient descent on separable data"
AUTHORS = "Soudry, Hoffer, Nacson, Gunasekar, Srebro"
CITATION = "arXiv:1710.10345v4 (JMLR 2018)"
