#include "CImageFixtures.h"
