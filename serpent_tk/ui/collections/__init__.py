"""The smart-collection editor: rule rows (field, operator, value). Tk thread only."""
