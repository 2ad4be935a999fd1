"""A Python bot that does not even load."""

def decide(s)
    return s.legal[0]
