import Backdrop
print(Backdrop.version)
