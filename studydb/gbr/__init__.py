"""GBR (Guy-Blandford-Roycroft) codec. Placeholder: being written."""
