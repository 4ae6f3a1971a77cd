/// An error that says nothing of the photo being made (the render queue is full, say): the request ends with it, and
/// the photo is neither passed over nor marked unusable (``PhotoAttempts``). The room that throws it conforms.
protocol NoFaultOfThePhoto: Error {}
