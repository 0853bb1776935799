#!/bin/sh
# Stands for a built extension that crashes (see ExtensionSourcesTests).
kill -SEGV $$
