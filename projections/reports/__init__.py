"""What operators read: the acceptance metrics (``stats``) and the time-travel report."""
