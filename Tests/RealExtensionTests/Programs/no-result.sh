#!/bin/sh
# Stands for a built extension that exits without writing its result.
exit 0
