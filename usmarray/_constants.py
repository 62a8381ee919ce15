"""The standard's constants."""

import math

e = math.e
inf = math.inf
nan = math.nan
pi = math.pi
newaxis = None
