"""The shared core: settings, errors and codes, identifiers, rights, cursors and text safety every layer uses."""
