"""sightline's demo: findings pyright can see without running anything."""

from shapes import area

total = area(3.0, 4.0)
total == 12.0  # meant as an assertion, but it only compares and discards
print(f"area: {total}")
