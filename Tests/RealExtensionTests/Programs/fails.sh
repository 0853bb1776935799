#!/bin/sh
# Stands for a built extension that exits with a failure status.
exit 3
