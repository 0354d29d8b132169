"""Paper 000: Timor, Vardi, Shamir, implicit regularization towards rank minimization in ReLU networks."""

TITLE = "Implicit regularization towards rank minimization in ReLU networks"
AUTHORS = "Timor, Vardi, Shamir"
CITATION = "arXiv:2201.12760 (ALT 2023)"
ORDER = 0
