"""A tiny module for sightline's demo."""


def area(width: float, height: float) -> float:
    return width * height
