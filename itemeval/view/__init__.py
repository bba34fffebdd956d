"""`itemeval view`: a local web app over the study's stores, and the human labelling
queue."""

from .app import LabelSettings, ViewSettings, create_app

__all__ = ["LabelSettings", "ViewSettings", "create_app"]
