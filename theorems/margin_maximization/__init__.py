"""Paper 001: Vardi, Shamir, Srebro, on margin maximization in linear and ReLU networks."""

TITLE = "On margin maximization in linear and ReLU networks"
AUTHORS = "Vardi, Shamir, Srebro"
CITATION = "arXiv:2110.02732 (NeurIPS 2022)"
ORDER = 1
