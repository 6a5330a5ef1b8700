"""Rights-aware resources: URI templates, rights and size policy, representations."""
